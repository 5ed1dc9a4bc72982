import CairnStorage

extension Store.EntityTables {
    /// The vector index of one `@Attribute(.vector(…))` attribute: its table (``VectorLayout``),
    /// its vectors' length and metric, and where a vector is read from a model and from a
    /// stored record.
    ///
    /// ```swift
    /// for index in tables.keys.vectors where model._$state.isChanged(index.propertyIndex) { … }
    /// ```
    final class VectorIndex: @unchecked Sendable {
        let attribute: String
        /// The attribute's property index (what a model's change bits name).
        let propertyIndex: Int
        /// The attribute's field tag in its records.
        let tag: UInt32
        let keyPath: AnyKeyPath
        let table: Table
        let distance: VectorDistance

        init(attribute: Schema.Attribute, shape: VectorShape, tag: UInt32, table: Table) {
            self.attribute = attribute.name
            propertyIndex = attribute.index!
            self.tag = tag
            keyPath = attribute.keyPath
            self.table = table
            distance = VectorDistance(metric: shape.metric, dimensions: shape.dimensions)
        }

        /// The shape `attribute` declares when it has a vector index: a stored attribute marked
        /// `.vector` (the schema checked its type), kept in its record.
        static func shape(of attribute: Schema.Attribute) -> VectorShape? {
            guard !attribute.isTransient, !attribute.options.contains(.externalStorage) else { return nil }
            return attribute.vectorShape
        }

        /// The attribute's vector in `model` (read through its getter, which loads it).
        func vector(of model: any PersistentModel) -> [Float]? {
            model[keyPath: keyPath] as? [Float]
        }

        /// The attribute's vector in a stored record.
        func vector(ofRecord reader: RecordReader) throws(StorageError) -> [Float]? {
            try reader.read([Float]?.self, tag: tag)
        }

        /// Why `vector` cannot be indexed (another length, or a number that is not finite);
        /// `nil` when it can.
        func problem(with vector: [Float]) -> String? {
            if vector.count != distance.dimensions {
                return "has \(vector.count) numbers where its declaration says \(distance.dimensions)"
            }
            if let position = vector.firstIndex(where: { !$0.isFinite }) {
                return "holds \(vector[position]) at position \(position); every number must be finite"
            }
            return nil
        }
    }
}
