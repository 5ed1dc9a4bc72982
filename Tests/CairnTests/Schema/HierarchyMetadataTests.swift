import Foundation
import Testing

@testable import Cairn

/// The property numbers of models in a hierarchy: a subclass's own properties after its
/// superclass's, so that one model's properties never share a number.
@Suite struct HierarchyMetadataTests {
    @Test func subclassPropertiesAreNumberedAfterTheirSuperclasses() {
        #expect(Vehicle.schemaMetadata.compactMap(\.index) == [0, 1, 2, 3])
        #expect(Car.schemaMetadata.compactMap(\.index) == [0, 1, 2, 3, 4, 5])
        #expect(SportsCar.schemaMetadata.compactMap(\.index) == [0, 1, 2, 3, 4, 5, 6])
        #expect(_persistedPropertyCount(of: Car.self) == 6)
    }
}
