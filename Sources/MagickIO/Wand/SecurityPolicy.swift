internal import CMagickWand

extension ImageMagick {
    /// Applies MagickIO's security policy on top of the system's (ImageMagick takes the last
    /// matching rule, so these override `policy.xml` for what they name).
    static func applySecurityPolicy(decoders: Set<ImageFormat>) {
        let readers = Set(decoders.map(\.magickName))
        let writers = Set(encoders)
        let both = readers.intersection(writers), readOnly = readers.subtracting(writers), writeOnly = writers.subtracting(readers)
        func rule(_ rights: String, _ names: Set<String>) -> String {
            names.isEmpty ? "" : "<policy domain=\"coder\" rights=\"\(rights)\" pattern=\"{\(names.sorted().joined(separator: ","))}\"/>"
        }
        let policy = """
            <policymap>
            <policy domain="delegate" rights="none" pattern="*"/>
            <policy domain="path" rights="none" pattern="@*"/>
            <policy domain="coder" rights="none" pattern="*"/>
            \(rule("read|write", both))\(rule("read", readOnly))\(rule("write", writeOnly))
            </policymap>
            """
        let exception = AcquireExceptionInfo()
        defer { DestroyExceptionInfo(exception) }
        _ = SetMagickSecurityPolicy(policy, exception)
    }
}
