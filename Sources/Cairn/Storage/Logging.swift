import Logging

/// The logger every part of Cairn writes to, labelled `cairn`. The app chooses where it goes by
/// bootstrapping swift-log's `LoggingSystem`; without that, swift-log prints warnings and errors
/// to standard error.
///
/// Levels: `warning` for what an app should hear about even when nothing threw (a store opened at
/// an earlier commit after damage, a model property that could not be loaded); `notice` for a
/// full disk, which the save that met it also throws; `debug` for map growth. Nothing at `info`
/// or above on the normal path.
let cairnLog = Logger(label: "cairn")
