// swift-tools-version: 6.1
import PackageDescription

// Cairn's benchmarks (see ../Docs/Benchmarks.md):
// - `cairn-compare`, an executable that runs the same workloads on Cairn, on GRDB and on raw LMDB
//   in one process;
// - `CairnBenchmarks`, package-benchmark targets for Cairn alone, at a smaller scale:
//   `swift package --package-path Benchmarks benchmark`.
let package = Package(
    name: "CairnBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Cairn", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", exact: "7.10.0"),
        // package-benchmark, under its current name. Only its MallocInterposer trait (malloc
        // metrics without jemalloc): its default traits also enable RuntimeInterposer, which on
        // Linux with Swift 6.3 needs the swift-runtime-interposer package.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
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
                .product(name: "CairnSync", package: "Cairn"),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CLMDBRaw",
            ],
            path: "Sources/cairn-compare"
        ),
        .executableTarget(
            name: "CairnBenchmarks",
            dependencies: [
                "BenchmarkModels",
                .product(name: "Cairn", package: "Cairn"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/CairnBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
