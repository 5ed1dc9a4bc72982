import ConsoleKitTerminal
import Foundation
import Synchronization

/// Shows how long work is going: on a terminal (standard error), console-kit's activity
/// indicator with a bar, the count, the rate and the time left; otherwise a plain line every two
/// seconds (and one at the end, when any was printed), so a log or a test reading standard error
/// sees progress without escape codes, and short work prints nothing.
/// Standard output stays free for what the command prints.
final class Progress: Sendable {
    private struct State {
        var done = 0
        var lastLine = ContinuousClock.now
        /// Whether a progress line was printed: short work prints none, not even at the end.
        var printed = false
    }

    private let title: String
    private let unit: String
    private let total: Int?
    private let start = ContinuousClock.now
    private let state = Mutex(State())
    private let indicator: ActivityIndicator<RateBar>?
    /// Whether nothing is shown.
    private let quiet: Bool

    /// Starts showing progress of `title`, counted in `unit` up to `total` if it is known; nothing
    /// when `quiet`.
    init(_ title: String, unit: String, total: Int?, quiet: Bool) {
        self.quiet = quiet
        self.title = title
        self.unit = unit
        self.total = total
        let console = StandardErrorConsole()
        if !quiet && console.supportsANSICommands {
            let indicator = RateBar(title: title, unit: unit, total: total, start: start, done: 0)
                .newActivity(for: console)
            indicator.start(refreshRate: 100)
            self.indicator = indicator
        } else {
            indicator = nil
        }
    }

    /// Records that `done` units are done.
    func update(_ done: Int) {
        let now = ContinuousClock.now
        let due = state.withLock { state in
            state.done = done
            guard indicator == nil, !quiet, now - state.lastLine >= .seconds(2) else { return false }
            state.lastLine = now
            state.printed = true
            return true
        }
        indicator?.activity.done = done
        if due { printError("\(title): " + RateBar.describe(done: done, total: total, unit: unit, since: start)) }
    }

    /// Ends the display, saying whether the work succeeded and, when known, how much was done.
    func finish(succeeded: Bool, done final: Int? = nil) {
        if let final { update(final) }
        if let indicator {
            succeeded ? indicator.succeed() : indicator.fail()
        } else if !quiet, state.withLock({ $0.printed }) || !succeeded {
            let done = state.withLock { $0.done }
            printError(
                "\(title): \(succeeded ? "done" : "failed"), \(done) \(unit) in "
                    + RateBar.seconds(ContinuousClock.now - start))
        }
    }
}

/// console-kit's bar with the count, the rate and the time left after it.
struct RateBar: ActivityBar {
    var title: String
    let unit: String
    let total: Int?
    let start: ContinuousClock.Instant
    var done: Int

    func renderActiveBar(tick: UInt, width: Int) -> ConsoleText {
        let text = Self.describe(done: done, total: total, unit: unit, since: start)
        guard let total, total > 0 else {
            return "[\(String(repeating: ".", count: Int(tick % 4)))] \(text)".consoleText(.info)
        }
        let filled = min(width, width * min(done, total) / total)
        return
            ("[" + String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + text).consoleText(.info)
    }

    /// "12,000/40,000 rows (30%), 52,000 rows/s, 1 s left"
    static func describe(done: Int, total: Int?, unit: String, since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(done) / seconds : 0
        var text = total.map { "\(done)/\($0) \(unit)" } ?? "\(done) \(unit)"
        if let total, total > 0 { text += " (\(min(100, done * 100 / total))%)" }
        text += ", \(Int(rate)) \(unit)/s"
        if let total, rate > 0, done < total {
            text += ", " + Self.seconds(.seconds(Double(total - done) / rate)) + " left"
        }
        return text
    }

    static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 10 ? String(format: "%.1f s", seconds) : "\(Int(seconds)) s"
    }
}

/// console-kit's console, writing to standard error: the activity indicator's lines never mix
/// with what the command prints on standard output (rows of a dump piped to a file).
final class StandardErrorConsole: Console {
    private let info = Mutex<[AnySendableHashable: any Sendable]>([:])

    var userInfo: [AnySendableHashable: any Sendable] {
        get { info.withLock { $0 } }
        set { info.withLock { $0 = newValue } }
    }

    var supportsANSICommands: Bool {
        isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    var size: (width: Int, height: Int) {
        var window = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (80, 24) }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    func input(isSecure: Bool) -> String { "" }  // the tool asks nothing

    func output(_ text: ConsoleText, newLine: Bool) {
        didOutputLines(count: newLine ? 1 : 0)
        writeStandardError(text.description + (newLine ? "\n" : ""))
    }

    func clear(_ type: ConsoleClear) {
        let code: String
        switch type {
        case .line: code = "\u{1B}[1A\u{1B}[2K"
        case .screen: code = "\u{1B}[2J"
        }
        writeStandardError(code)
    }

    func report(error: String, newLine: Bool) {
        writeStandardError(error + (newLine ? "\n" : ""))
    }
}
