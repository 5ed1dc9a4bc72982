// swift-tools-version: 6.1
import PackageDescription

// Cairn's benchmarks: a comparison executable that runs the same workloads on Cairn, on GRDB and
// on raw LMDB in one process (see ../Docs/Benchmarks.md).
let package = Package(
    name: "CairnBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Cairn", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CLMDBRaw", path: "Sources/CLMDBRaw", pkgConfig: "lmdb"),
        .target(
            name: "BenchmarkModels",
            dependencies: [.product(name: "Cairn", package: "Cairn")],
            path: "Sources/BenchmarkModels"
        ),
        .executableTarget(
            name: "cairn-compare",
            dependencies: [
                "BenchmarkModels",
                .product(name: "Cairn", package: "Cairn"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CLMDBRaw",
            ],
            path: "Sources/cairn-compare"
        ),
    ],
    swiftLanguageModes: [.v6]
)
