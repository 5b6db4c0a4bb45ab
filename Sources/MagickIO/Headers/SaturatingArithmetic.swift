extension Int {
    /// The product, or `Int.max` when it would overflow: header fields are attacker-controlled,
    /// and a claimed 4294967295 x 4294967295 image must be refused, not trap.
    func saturatingTimes(_ other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? .max : product
    }

    /// The sum, or `Int.max` when it would overflow.
    func saturatingPlus(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
