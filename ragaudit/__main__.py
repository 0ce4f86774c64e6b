from ragaudit.cli.main import main

raise SystemExit(main())
