import Foundation

// `@Attribute(.transformable(by:))` names a `ValueTransformer`. Apple's Foundation has one;
// swift-corelibs Foundation (Linux) has none, so Cairn supplies the class and the secure
// unarchiving transformer with Apple's names and meaning there, and the same model code compiles
// on both. What a transformable attribute stores is the `Data` its transformer makes
// (``AttributeAccess/transformed(_:name:defaultValue:transformer:)``).

#if !canImport(Darwin)
/// The name a ``ValueTransformer`` is registered under, as in Apple's Foundation.
///
/// ```swift
/// extension NSValueTransformerName {
///     static let colorTransformer = NSValueTransformerName("ColorTransformer")
/// }
/// ```
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    ///
    /// ```swift
    /// NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue   // "NSSecureUnarchiveFromData"
    /// ```
    public let rawValue: String

    /// A name.
    ///
    /// ```swift
    /// let name = NSValueTransformerName(rawValue: "ColorTransformer")
    /// ```
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A name.
    ///
    /// ```swift
    /// let name = NSValueTransformerName("ColorTransformer")
    /// ```
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The name of ``NSSecureUnarchiveFromDataTransformer``, registered from the start.
    ///
    /// ```swift
    /// @Attribute(.transformable(by: NSValueTransformerName.secureUnarchiveFromDataTransformerName.rawValue))
    /// var palette: NSArray
    /// ```
    public static let secureUnarchiveFromDataTransformerName = NSValueTransformerName("NSSecureUnarchiveFromData")
}

/// Converts a value to another and, where it allows, back: Apple's `ValueTransformer`, for
/// platforms whose Foundation lacks it. Subclass it and override the four methods a
/// transformable attribute uses; Cairn stores what ``transformedValue(_:)`` returns (`Data`)
/// and reads the value back through ``reverseTransformedValue(_:)``.
///
/// ```swift
/// final class TagListTransformer: ValueTransformer {
///     override class func transformedValueClass() -> AnyClass { NSData.self }
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? {
///         (value as? TagList).map { Data($0.joined(separator: ",").utf8) }
///     }
///     override func reverseTransformedValue(_ value: Any?) -> Any? {
///         (value as? Data).map { TagList(String(decoding: $0, as: UTF8.self)) }
///     }
/// }
/// ```
open class ValueTransformer: NSObject {
    /// The registered transformers; guarded by `lock`.
    nonisolated(unsafe) private static var registry: [NSValueTransformerName: ValueTransformer] = [
        .secureUnarchiveFromDataTransformerName: NSSecureUnarchiveFromDataTransformer()
    ]
    private static let lock = NSLock()

    /// Makes a transformer. Required, so that `.transformable(by: TagListTransformer.self)`
    /// can make one from the class.
    ///
    /// ```swift
    /// let transformer = TagListTransformer()
    /// ```
    public required override init() { super.init() }

    /// Registers `transformer` under `name` (or removes the one registered, for `nil`), so
    /// that `@Attribute(.transformable(by: "Name"))` finds it. Register before the container opens.
    ///
    /// ```swift
    /// ValueTransformer.setValueTransformer(TagListTransformer(), forName: .init("TagListTransformer"))
    /// ```
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        lock.withLock { registry[name] = transformer }
    }

    /// The names of the registered transformers.
    ///
    /// ```swift
    /// ValueTransformer.valueTransformerNames().contains(.init("TagListTransformer"))
    /// ```
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        lock.withLock { Array(registry.keys) }
    }

    /// The transformer registered under `name`, if any. (Apple's Foundation spells this
    /// `ValueTransformer(forName:)`, an initialiser only Objective-C can write.)
    ///
    /// ```swift
    /// let transformer = ValueTransformer.registered(forName: .init("TagListTransformer"))
    /// ```
    public class func registered(forName name: NSValueTransformerName) -> ValueTransformer? {
        lock.withLock { registry[name] }
    }

    /// The class of the values ``transformedValue(_:)`` returns.
    ///
    /// ```swift
    /// override class func transformedValueClass() -> AnyClass { NSData.self }
    /// ```
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` can turn a transformed value back.
    ///
    /// ```swift
    /// override class func allowsReverseTransformation() -> Bool { true }
    /// ```
    open class func allowsReverseTransformation() -> Bool { true }

    /// The transformed value; by default, `value` itself.
    ///
    /// ```swift
    /// override func transformedValue(_ value: Any?) -> Any? { (value as? Color)?.data }
    /// ```
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value a transformed value came from; by default ``transformedValue(_:)`` of it
    /// when the class allows reverse transformation, else `nil`.
    ///
    /// ```swift
    /// override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map(Color.init) }
    /// ```
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        type(of: self).allowsReverseTransformation() ? transformedValue(value) : nil
    }
}

/// Unarchives objects from `Data` with secure coding, accepting only
/// ``allowedTopLevelClasses``: Apple's `NSSecureUnarchiveFromDataTransformer`. As in Core
/// Data, a transformable attribute uses it the other way round: it archives the value to
/// store it and unarchives it to read it.
///
/// ```swift
/// final class PaletteTransformer: NSSecureUnarchiveFromDataTransformer {
///     override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
/// }
/// ```
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer {
    /// The classes an archive's top-level object may have.
    ///
    /// ```swift
    /// override class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSString.self] }
    /// ```
    open class var allowedTopLevelClasses: [AnyClass] {
        [
            NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self, NSDate.self, NSData.self,
            NSURL.self, NSUUID.self, NSNull.self,
        ]
    }

    /// Archives can always be turned back into objects.
    ///
    /// ```swift
    /// NSSecureUnarchiveFromDataTransformer.allowsReverseTransformation()   // true
    /// ```
    open override class func allowsReverseTransformation() -> Bool { true }

    /// The unarchived objects' class.
    ///
    /// ```swift
    /// NSSecureUnarchiveFromDataTransformer.transformedValueClass()   // NSObject
    /// ```
    open override class func transformedValueClass() -> AnyClass { NSObject.self }

    /// The object archived in `value` (`Data`), or `nil` when it is no archive of an allowed class.
    ///
    /// ```swift
    /// let palette = PaletteTransformer().transformedValue(data) as? NSArray
    /// ```
    open override func transformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        return try? NSKeyedUnarchiver.unarchivedObject(ofClasses: type(of: self).allowedTopLevelClasses, from: data)
    }

    /// The secure archive of `value` (an object of an allowed class), or `nil`.
    ///
    /// ```swift
    /// let data = PaletteTransformer().reverseTransformedValue(palette) as? Data
    /// ```
    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let value, let object = value as? NSObject else { return nil }
        return try? NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
    }
}
#endif

extension ValueTransformer {
    /// The transformer registered under `name`, on every platform.
    static func cairnRegistered(_ name: String) -> ValueTransformer? {
        #if canImport(Darwin)
        ValueTransformer(forName: NSValueTransformerName(name))
        #else
        registered(forName: NSValueTransformerName(name))
        #endif
    }

    /// A new instance of `type`, on every platform.
    static func cairnMake(_ type: ValueTransformer.Type) -> ValueTransformer? {
        #if canImport(Darwin)
        (type as NSObject.Type).init() as? ValueTransformer
        #else
        type.init()
        #endif
    }
}
