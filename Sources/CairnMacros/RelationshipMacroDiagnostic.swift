import SwiftDiagnostics

/// The errors `@Relationship` reports.
enum RelationshipMacroDiagnostic: DiagnosticMessage {
    /// `@Relationship` on a property whose type is certainly not a model, an optional of one or an
    /// array of one.
    case notAModelType(property: String, type: String)

    var message: String {
        switch self {
        case .notAModelType(let property, let type):
            "'@Relationship' needs a model type, an optional of one, or an array of one; "
                + "'\(property)' is '\(type)'; remove '@Relationship' to store it as an attribute"
        }
    }

    var diagnosticID: MessageID {
        switch self {
        case .notAModelType: MessageID(domain: "CairnMacros.RelationshipMacro", id: "notAModelType")
        }
    }

    var severity: DiagnosticSeverity { .error }
}
