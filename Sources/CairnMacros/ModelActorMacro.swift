import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor own a `ModelContext` and run on that context's executor, as in
/// SwiftData. It adds `modelExecutor`, `modelContainer` and `init(modelContainer:)`, and conforms
/// the actor to `ModelActor`. Docs/Macros.md gives the exact generated code.
public enum ModelActorMacro {}

extension ModelActorMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            let keyword = declaration.introducer.text
            context.diagnose(
                Diagnostic(node: Syntax(node), message: ModelActorMacroDiagnostic.notAnActor(keyword: keyword)))
            return []
        }
        let access = GeneratedAccessLevel.modifier(for: declaration.modifiers)
        return [
            "\(raw: access)nonisolated let modelExecutor: any Cairn.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: Cairn.ModelContainer",
            """
            \(raw: access)init(modelContainer: Cairn.ModelContainer) {
                let modelContext = Cairn.ModelContext(modelContainer)
                self.modelExecutor = Cairn.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }
}

extension ModelActorMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [DeclSyntax("extension \(type.trimmed): Cairn.ModelActor {}").cast(ExtensionDeclSyntax.self)]
    }
}

/// What `@ModelActor` reports.
enum ModelActorMacroDiagnostic: DiagnosticMessage {
    /// `@ModelActor` on a class, struct, enum, protocol or extension (`keyword`).
    case notAnActor(keyword: String)

    var message: String {
        switch self {
        case .notAnActor(let keyword):
            "'@ModelActor' cannot be applied to \(keyword == "extension" ? "an extension" : "a \(keyword)"); "
                + "declare an actor"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "CairnMacros", id: "ModelActor.notAnActor") }
    var severity: DiagnosticSeverity { .error }
}
