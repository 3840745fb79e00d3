import FerryAPI
import FerryMetrics
import FerryStore
import FerryVault
import Logging
import PostgresNIO

extension APIRouter.Dependencies {
    /// The API's stores over one database pool.
    package static func stores(
        client: DatabasePool, vault: VaultKeyring, files: GatewayFiles, metrics: GatewayMetrics, exposition: PrometheusExposition,
        eventFeed: JobEventFeed,
        decisionCredentials: DecisionCredentials?, eventStreams: EventStreamLimit = EventStreamLimit(), maxStorageBytesPerTenant: Int64? = nil,
        logger: Logger
    ) -> APIRouter.Dependencies {
        var dependencies = APIRouter.Dependencies(
            keys: KeyStore(client: client, logger: logger), jobs: JobStore(client: client, keyring: vault, logger: logger),
            sessions: SessionStore(client: client, keyring: vault, logger: logger),
            cookies: SessionCookieStore(client: client, keyring: vault, logger: logger),
            credentials: CredentialStore(client: client, keyring: vault, logger: logger),
            blobs: BlobStore(client: client, logger: logger, maxStorageBytesPerTenant: maxStorageBytesPerTenant),
            events: JobEventStore(client: client, logger: logger), eventFeed: eventFeed,
            webhooks: WebhookStore(client: client, keyring: vault, logger: logger), overview: OverviewStore(client: client, logger: logger),
            database: DatabaseProbe(client: client, logger: logger),
            files: files, metrics: metrics, exposition: exposition, decisionCredentials: decisionCredentials)
        dependencies.eventStreams = eventStreams
        return dependencies
    }
}
