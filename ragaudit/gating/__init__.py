"""`ragaudit gate`: a paired regression gate for pull requests. A baseline results file and
a new one are paired by instance id (after comparison.agreement's check); each gated cell gets
a one-sided exact McNemar test (`mcnemar`), Holm-corrected; `power` says what drop each
cell could have seen; `verdict` decides; `changes` says what a lost instance lost;
`summary` and `junit` write it for CI. `gate` is the whole of it as one library function
(typed GateOptions in, a GateVerdict out); `baseline` checks a baseline against a run
before and after it runs (`ragaudit run --baseline`)."""
