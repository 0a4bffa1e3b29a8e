// Package randhex names what dbbench creates (schemas, databases, in-memory files, run ids) and the
// challenges it sends: n bytes from crypto/rand in lower-case hex, so that no two runs, and no
// formula, give the same name.
package randhex

import (
	"crypto/rand"
	"encoding/hex"
)

// String returns n random bytes as 2n hex digits.
func String(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand's contract since Go 1.24)
	return hex.EncodeToString(b)
}
