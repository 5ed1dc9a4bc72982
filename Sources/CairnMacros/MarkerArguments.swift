import SwiftSyntax

/// The arguments of an `@Attribute(…)` or `@Relationship(…)` marker, as source text.
///
/// The metadata repeats them verbatim, so the compiler type-checks them against the runtime's
/// `Schema` types; the macro never interprets their values.
struct MarkerArguments {
    /// The unlabelled (variadic option) arguments as an array literal, `[]` when there are none.
    let options: String
    private let labelled: [String: String]

    init(_ attribute: AttributeSyntax) {
        var options: [String] = []
        var labelled: [String: String] = [:]
        if case .argumentList(let arguments) = attribute.arguments {
            for argument in arguments {
                if let label = argument.label {
                    labelled[label.text] = argument.expression.trimmedDescription
                } else {
                    options.append(argument.expression.trimmedDescription)
                }
            }
        }
        self.options = "[\(options.joined(separator: ", "))]"
        self.labelled = labelled
    }

    /// The argument labelled `label`, or `nil` when it was omitted.
    subscript(label: String) -> String? {
        labelled[label]
    }
}
