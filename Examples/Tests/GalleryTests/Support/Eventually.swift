import Testing

/// Waits until `condition` holds (polling; the bound, 30 s, is a safety net against a hang, not
/// an expectation of speed), then expects it.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<3000 {
        if condition() { break }
        try await Task.sleep(for: .milliseconds(10))
    }
    #expect(condition())
}
