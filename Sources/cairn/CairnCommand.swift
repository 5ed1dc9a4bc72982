import ArgumentParser

/// The `cairn` command-line tool.
@main
struct CairnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn",
        abstract: "Work with Cairn stores: inspect, verify, dump, back up, compact, read the history.",
        discussion: """
            Every command reads the store by itself, without your app's models, and opens it read-only unless it
            says otherwise, so it can run beside the app. Commands that report take --json; long ones show
            progress on standard error.

            Example:
              cairn inspect Library.store
              cairn verify Library.store
            """,
        subcommands: [
            InspectCommand.self, VerifyCommand.self, DumpCommand.self, BackupCommand.self, CompactCommand.self,
            HistoryCommand.self, DemoCommand.self,
        ])
}
