@testable import FerryAPI
import Testing

/// How `Authorization` is read on every request: `Bearer <key>`, the scheme in any case,
/// blanks around the key ignored, anything else refused.
@Suite("Bearer key parsing")
struct BearerKeyTests {
    @Test("the key of Bearer, bearer and BEARER, without the blanks around it")
    func accepted() {
        #expect(BearerAuthMiddleware.bearerKey("Bearer ferry_abc") == "ferry_abc")
        #expect(BearerAuthMiddleware.bearerKey("bearer ferry_abc") == "ferry_abc")
        #expect(BearerAuthMiddleware.bearerKey("BEARER ferry_abc") == "ferry_abc")
        #expect(BearerAuthMiddleware.bearerKey("Bearer   ferry_abc \t") == "ferry_abc")
    }

    @Test("other schemes, a missing key and look-alikes are refused")
    func refused() {
        for header in ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer  \t ", "Bearerferry_abc", "Bearer\tferry_abc",
                       "Bearer\u{0}ferry_abc", "Bea rer ferry_abc", "Bearér ferry_abc", ""] {
            #expect(BearerAuthMiddleware.bearerKey(header) == nil, "\(header.debugDescription)")
        }
    }
}
