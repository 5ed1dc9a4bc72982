// The storage layer's public API (`StorageError` and its codes) is part of Cairn's: an app that
// imports Cairn catches storage errors without importing CairnStorage.
@_exported import CairnStorage
