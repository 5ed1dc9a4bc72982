import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ModelActorMacroTests {
    @Test func addsTheExecutorTheContainerAndTheInitialiser() {
        assertExpansion(
            """
            @ModelActor
            actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
                actor Importer {
                    func run() {}

                    nonisolated let modelExecutor: any Cairn.ModelExecutor

                    nonisolated let modelContainer: Cairn.ModelContainer

                    init(modelContainer: Cairn.ModelContainer) {
                        let modelContext = Cairn.ModelContext(modelContainer)
                        self.modelExecutor = Cairn.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: Cairn.ModelActor {
                }
                """
        )
    }

    @Test func aPublicActorGetsPublicMembers() {
        assertExpansion(
            """
            @ModelActor
            public actor Importer {
            }
            """,
            expandedSource: """
                public actor Importer {

                    public nonisolated let modelExecutor: any Cairn.ModelExecutor

                    public nonisolated let modelContainer: Cairn.ModelContainer

                    public init(modelContainer: Cairn.ModelContainer) {
                        let modelContext = Cairn.ModelContext(modelContainer)
                        self.modelExecutor = Cairn.DefaultSerialModelExecutor(modelContext: modelContext)
                        self.modelContainer = modelContainer
                    }
                }

                extension Importer: Cairn.ModelActor {
                }
                """
        )
    }

    @Test func onlyAnActorCanBeAModelActor() {
        assertExpansion(
            """
            @ModelActor
            final class Importer {
            }
            """,
            expandedSource: """
                final class Importer {
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'@ModelActor' cannot be applied to a class; declare an actor", line: 1, column: 1)
            ]
        )
    }
}
