import FerryModel

/// A job's response and result as every end of a download writes them (`FinishJobsStatement`), by
/// hand: the same members `Codable` writes (`encodeIfPresent` leaves out a nil), and so read back by
/// the same `Decodable`. `JobEndJSONTests` holds the two together: a member added to either type
/// must be added here.
extension JobRecord.StoredResponse {
    func write(into json: inout JSONText) {
        json.object { json in
            json.member("status", status)
            json.key("headers")
            json.array(headers) { json, header in
                json.object { json in
                    json.member("name", header.name)
                    json.member("value", header.value)
                }
            }
            json.member("url", url)
        }
    }
}

extension JobRecord.StoredResult {
    func write(into json: inout JSONText) {
        json.object { json in
            json.member("file", file)
            json.member("size", size)
            json.member("sha256", sha256)
            json.member("content_type", contentType)
            json.member("cache", cache)
            json.member("expired", expired)
            json.member("parts", parts)
        }
    }
}
