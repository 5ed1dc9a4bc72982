import SwiftDiagnostics

/// The errors `@Transient` reports.
enum TransientMacroDiagnostic: DiagnosticMessage {
    /// A stored `@Transient` property that nothing initialises when Cairn creates the model from
    /// storage, which does not run the user's initialisers.
    case missingInitialValue(property: String)

    var message: String {
        switch self {
        case .missingInitialValue(let property):
            "'@Transient' property '\(property)' needs an initial value; "
                + "models loaded from the store are created without running your 'init'"
        }
    }

    var diagnosticID: MessageID {
        switch self {
        case .missingInitialValue: MessageID(domain: "CairnMacros.TransientMacro", id: "missingInitialValue")
        }
    }

    var severity: DiagnosticSeverity { .error }
}
