import ArgumentParser

/// The `cairn` command-line tool.
@main
struct CairnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cairn",
        abstract: "Work with Cairn stores.",
        subcommands: [DemoCommand.self])
}
