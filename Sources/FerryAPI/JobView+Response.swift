import FerryModel
import Hummingbird

/// A job is the body of most responses, encoded with the context's encoder.
extension JobView: ResponseEncodable {}
