// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Cairn",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "Cairn", targets: ["Cairn"])
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1")
    ],
    targets: [
        .systemLibrary(
            name: "CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"]), .brew(["lmdb"])]
        ),
        .target(
            name: "Cairn",
            dependencies: ["CLMDB"]
        ),
        // A child process for the reliability tests: it commits, acknowledges, and gets killed.
        .executableTarget(
            name: "CairnTestHelper",
            dependencies: ["Cairn"],
            path: "Tests/CairnTestHelper"
        ),
        .testTarget(
            name: "CairnTests",
            dependencies: [
                "Cairn",
                "CairnTestHelper",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
