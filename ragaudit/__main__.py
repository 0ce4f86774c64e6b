from ragaudit.cli import main

raise SystemExit(main())
