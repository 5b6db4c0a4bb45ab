internal import CMagickWand

extension ImageMagick {
    /// Applies MagickIO's security policy on top of the system's (ImageMagick takes the last
    /// matching rule, so these override `policy.xml` for what they name). When
    /// `SetMagickSecurityPolicy` refuses it (a system policy may forbid the change), every
    /// ImageMagick read refuses until a policy is applied (``MagickRuntime/checkSecurityPolicy()``),
    /// because the coder allowlist's last layer would be missing.
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
        let refusal: MagickIOError? = if SetMagickSecurityPolicy(policy, exception) != MagickFalse {
            nil
        } else {
            MagickIOError(.formatNotAllowed, "ImageMagick refused MagickIO's security policy (\(exception?.pointee.reason.map { String(cString: $0) } ?? "no reason given")): no coder may run")
        }
        securityPolicyRefusal.withLock { $0 = refusal }
    }

    /// Why the security policy last applied was refused, or nil when it is in force.
    static let securityPolicyRefusal = Locked<MagickIOError?>(nil)
}
