// An app that imports CairnSync names the protocol's types (SyncID, ChangeBatch, …) without a
// second import, as the server and custom transports do.
@_exported import CairnSyncProtocol
