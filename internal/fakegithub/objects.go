package fakegithub

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"time"
)

// object is one Git object.
type object struct {
	kind   string // "blob", "tree" or "commit"
	data   []byte // blob content
	tree   []treeEntry
	commit *commitObject
}

// treeEntry is one entry of a tree object: a name, not a path.
type treeEntry struct {
	name, mode, typ, sha string
}

type commitObject struct {
	tree, message     string
	parents           []string
	author, committer signature
}

type signature struct {
	Name  string    `json:"name"`
	Email string    `json:"email"`
	Date  time.Time `json:"date"`
}

// gitHash is the SHA-1 Git names an object by: of "KIND SIZE\0PAYLOAD",
// so identical content gets one name.
func gitHash(kind string, payload []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(payload))
	h.Write(payload)
	return hex.EncodeToString(h.Sum(nil))
}
