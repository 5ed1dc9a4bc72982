import Testing
@testable import CairnMacros

@Suite struct PluginTests {
    @Test func thePluginLoads() {
        #expect(CairnMacrosPlugin().providingMacros.count >= 0)
    }
}
