import Logging

/// The logger every part of Cairn writes to, labelled `cairn`. The app chooses where it goes by
/// bootstrapping swift-log's `LoggingSystem`; without that, swift-log prints to standard error.
///
/// A new `Logger` each time, so a `LoggingSystem` bootstrapped after Cairn first logged still
/// receives everything after it (a `Logger` keeps the handler it was made with). Cairn logs
/// rarely, so making one costs nothing that matters.
///
/// Levels: `warning` for what an app should hear about even when nothing threw (a store opened at
/// an earlier commit after damage, a model property that could not be loaded, a fault storm: one
/// relationship loaded model by model again and again); `notice` for a full disk, which the save
/// that met it also throws, and a fetch slower than the configured threshold, with its plan;
/// `debug` for map growth. Nothing at `info` or above on the normal path.
package var cairnLog: Logger { Logger(label: "cairn") }
