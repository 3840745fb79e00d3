import Foundation
#if FERRY_OTEL
import OTel
#endif
import ServiceLifecycle
import Tracing

/// ferryd's spans exported over OTLP/HTTP by swift-otel, when the standard OpenTelemetry variables
/// ask for it: an endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or
/// `OTEL_TRACES_EXPORTER=otlp`. Otherwise nothing is traced and nothing is sent anywhere (the
/// OpenTelemetry default of exporting to localhost:4318 would send an operator's data somewhere
/// unasked). `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off. swift-otel reads
/// the other variables itself (`OTEL_SERVICE_NAME`, `OTEL_EXPORTER_OTLP_PROTOCOL`, headers, sampler,
/// batch delays).
struct TraceExport {
    /// Also the process's `InstrumentationSystem` tracer, once made.
    let tracer: any Tracer
    /// Batches and sends the spans; runs in ferryd's service group and flushes on shutdown.
    let service: any Service

    static func isRequested(by environment: [String: String]) -> Bool {
        if environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" { return false }
        if let exporter = environment["OTEL_TRACES_EXPORTER"]?.lowercased() { return exporter != "none" }
        return environment["OTEL_EXPORTER_OTLP_ENDPOINT"] != nil || environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != nil
    }

    /// The export the environment asks for, with the process's `InstrumentationSystem` bootstrapped
    /// to its tracer (which may be done once per process); nil when none is asked for.
    static func start(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TraceExport? {
        guard isRequested(by: environment) else { return nil }
        #if FERRY_OTEL
        var configuration = OTel.Configuration.default
        // OTEL_SERVICE_NAME, when set, wins over this.
        configuration.serviceName = "ferryd"
        // Metrics go to /metrics (Prometheus) and logs to standard error, as without tracing.
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return TraceExport(tracer: backend.factory, service: backend.service)
        #else
        throw Unavailable()
        #endif
    }

    /// A ferryd built without swift-otel (the sanitizer build, see Package.swift) asked to export.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "OTEL_* asks for trace export, but this ferryd was built without its OTLP exporter" }
    }
}
