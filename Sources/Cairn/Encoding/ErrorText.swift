import Foundation

/// An error as text inside another error's message, bounded in length and in how deep it reads.
///
/// An `EncodingError.invalidValue` holds the value that failed, and describing the error
/// describes that value whole: a value nested thousands of levels deep (which the encoder refuses
/// at 256) overflowed the stack while its error was being written. So a coding error is told by
/// its kind, the type of its value, a shortened coding path and its own words; any other error by
/// its `description` (an error that has none, by its type and case); and the text is cut.
///
/// ```swift
/// let text = ErrorText.describing(error)   // at most ErrorText.limit characters
/// ```
enum ErrorText {
    /// The most characters the text of one error takes.
    static let limit = 600

    /// `error` as bounded text.
    static func describing(_ error: any Error) -> String {
        cut(text(of: error, depth: 0))
    }

    /// `text` cut to `limit` characters, with an ellipsis when it was longer.
    static func cut(_ text: String, to limit: Int = limit) -> String {
        guard text.utf8.count > limit, let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex)
        else { return text }
        return end == text.endIndex ? text : text[..<end] + "…"
    }

    /// `error` as the `cause` of a Cairn error, whose description includes its cause's: itself
    /// when its description is bounded (a `DecodingError` with no underlying error), else a
    /// ``DescribedError`` holding its bounded text (an `EncodingError` holds the value itself).
    ///
    /// ```swift
    /// throw StorageError(code: .unsupportedValue, message: "…", cause: ErrorText.cause(error))
    /// ```
    static func cause(_ error: any Error) -> any Error {
        if let decoding = error as? DecodingError {
            switch decoding {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                .dataCorrupted(let context):
                if context.underlyingError == nil { return decoding }
            @unknown default: break
            }
        }
        return DescribedError(type: "\(type(of: error))", text: describing(error))
    }

    private static func text(of error: any Error, depth: Int) -> String {
        switch error {
        case let error as EncodingError:
            switch error {
            case .invalidValue(let value, let context):
                return "invalidValue(a \(type(of: value)), \(text(of: context, depth: depth)))"
            @unknown default:
                return "EncodingError"
            }
        case let error as DecodingError:
            switch error {
            case .typeMismatch(let type, let context): return "typeMismatch(\(type), \(text(of: context, depth: depth)))"
            case .valueNotFound(let type, let context):
                return "valueNotFound(\(type), \(text(of: context, depth: depth)))"
            case .keyNotFound(let key, let context):
                return "keyNotFound(\(cut(key.stringValue, to: 80)), \(text(of: context, depth: depth)))"
            case .dataCorrupted(let context): return "dataCorrupted(\(text(of: context, depth: depth)))"
            @unknown default: return "DecodingError"
            }
        case let error as any CustomStringConvertible:
            return cut(error.description)
        default:
            // Reflection would describe the payload whole: name the type and the case only.
            let mirror = Mirror(reflecting: error)
            if mirror.displayStyle == .enum, let label = mirror.children.first?.label {
                return "\(type(of: error)).\(label)(…)"
            }
            return mirror.displayStyle == .enum ? cut(String(describing: error)) : "\(type(of: error))"
        }
    }

    private static func text(of context: EncodingError.Context, depth: Int) -> String {
        text(path: context.codingPath, context.debugDescription, context.underlyingError, depth: depth)
    }

    private static func text(of context: DecodingError.Context, depth: Int) -> String {
        text(path: context.codingPath, context.debugDescription, context.underlyingError, depth: depth)
    }

    private static func text(path: [any CodingKey], _ debugDescription: String, _ underlying: (any Error)?, depth: Int)
        -> String
    {
        var text = "at \(self.path(path)): \(cut(debugDescription, to: 200))"
        if let underlying, depth < 2 { text += " (underlying: \(self.text(of: underlying, depth: depth + 1)))" }
        return text
    }

    /// A coding path with at most its first and last four keys.
    private static func path(_ path: [any CodingKey]) -> String {
        func name(_ key: any CodingKey) -> String { key.intValue.map { "[\($0)]" } ?? cut(key.stringValue, to: 40) }
        guard !path.isEmpty else { return "the top level" }
        guard path.count > 8 else { return path.map(name).joined(separator: ".") }
        return path.prefix(4).map(name).joined(separator: ".") + ".…(\(path.count - 8) more)…."
            + path.suffix(4).map(name).joined(separator: ".")
    }
}

/// An error from a value's own coding (`encode(to:)`, `init(from:)`) kept as bounded text: the
/// original could describe the value whole (see ``ErrorText``).
///
/// ```swift
/// if let described = storageError.cause as? DescribedError { print(described.type, described.text) }
/// ```
struct DescribedError: Error, CustomStringConvertible {
    /// The original error's type.
    let type: String
    /// The original error, described as ``ErrorText/describing(_:)`` does.
    let text: String

    var description: String { text }
}
