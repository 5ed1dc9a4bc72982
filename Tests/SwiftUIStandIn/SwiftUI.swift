// A stand-in with the shapes of the SwiftUI declarations Cairn uses (Query.swift,
// Query+Initializers.swift), so that they type-check where SwiftUI does not exist:
// Scripts/typecheck-swiftui.
@_exported import Foundation
public protocol DynamicProperty { @MainActor @preconcurrency mutating func update() }
public protocol EnvironmentKey { associatedtype Value; static var defaultValue: Value { get } }
public struct EnvironmentValues {
    public init() {}
    public subscript<K: EnvironmentKey>(key: K.Type) -> K.Value { get { K.defaultValue } set {} }
}
@propertyWrapper public struct Environment<Value>: DynamicProperty {
    let keyPath: KeyPath<EnvironmentValues, Value>
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) { self.keyPath = keyPath }
    public var wrappedValue: Value { EnvironmentValues()[keyPath: keyPath] }
    public mutating func update() {}
}
@propertyWrapper public struct State<Value>: DynamicProperty {
    var value: Value
    public init(wrappedValue: Value) { value = wrappedValue }
    public var wrappedValue: Value { get { value } nonmutating set {} }
    public mutating func update() {}
}
public struct Animation: Sendable { public init() {}; public static let `default` = Animation() }
public struct Transaction { public init() {} }
public protocol View {}
public struct ModifiedView<Content>: View {}
extension View {
    public func environment<V>(_ keyPath: WritableKeyPath<EnvironmentValues, V>, _ value: V) -> some View { ModifiedView<Self>() }
}
