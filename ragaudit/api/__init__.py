"""ragaudit as a library: the verbs (`verbs`: run, mutate, audit, gate, compare, load) and
the typed results they return (`results.Results`), exported lazily from `ragaudit`."""
