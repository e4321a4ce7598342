"""Where the chain stands, computed from the bank and its ledger: the status report (`build`), each
subject's gates (`gates`) and the next safe actions (`actions`). Rendering is `aidlc.report.status`."""
