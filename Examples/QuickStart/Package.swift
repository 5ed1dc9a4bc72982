// swift-tools-version: 6.1
// The README's example as a package of its own, depending on Cairn by path: `./Scripts/test`
// builds and runs it, so the lines a newcomer copies are known to compile and work.
import PackageDescription

let package = Package(
    name: "QuickStart",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "cairn", path: "../..")
    ],
    targets: [
        .executableTarget(name: "QuickStart", dependencies: [.product(name: "Cairn", package: "cairn")])
    ],
    swiftLanguageModes: [.v6]
)
