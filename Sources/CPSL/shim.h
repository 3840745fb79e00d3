// libpsl: the public suffix list (the system's, or the one built into the library) for refusing
// cookies set on a public suffix such as "co.uk" (CK-03, RFC 6265 §5.3 step 5).
#include <libpsl.h>
