package rules

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sync"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/buildid"
	"github.com/capreport/capreport/internal/safefile"
)

// The bill cache (Options.CacheDir) keeps each priced workload keyed by
// everything price reads: the capreport build, the autoscaler as analyze
// extracted it (spec, target, metrics, assumptions with where each came
// from, its findings, its ignores and its place), the configuration's
// checks and failOnDefaults, and the options that shape a bill. Pricing
// is a pure function of those, so an autoscaler a pull request leaves
// alone is priced once, on whichever side of the diff first met it.

// billFormat names the layout of an entry; bump it when it changes.
const billFormat = "capreport-bill-cache-v1"

// maxBillEntryBytes bounds an entry read back: a workload with its
// timelines is tens of kilobytes; a planted file of gigabytes is refused.
const maxBillEntryBytes = 64 << 20

// decoded holds the entries this process has read or written, by path:
// the two sides of a diff share most of their bills, and decoding an
// entry costs more than anything else a warm run does. Entries are
// immutable (a path names its content), so sharing them is safe; the
// workloads handed out share their slices and are only read.
var decoded sync.Map // path → contract.Workload

// billCache is one run's view of the cache directory.
type billCache struct {
	dir  string
	salt []byte
}

func newBillCache(dir string, cfg *config.Config, opts Options) *billCache {
	if dir == "" {
		return nil
	}
	salt, err := json.Marshal(struct {
		Format, Build                          string
		Include, Exclude                       []string
		AllowIgnores, FailOnDefaults           bool
		NoTimelines, NoRoundsCurve, NoPhiCurve bool
	}{billFormat, buildid.Digest(), cfg.Checks.Include, cfg.Checks.Exclude, cfg.Checks.AllowIgnores.Value,
		opts.FailOnDefaults || cfg.FailOnDefaults, opts.NoTimelines, opts.NoRoundsCurve, opts.NoPhiCurve})
	if err != nil {
		return nil
	}
	return &billCache{dir: dir, salt: salt}
}

// path is the entry file of a, "" when a cannot be encoded.
func (c *billCache) path(a *analyze.Autoscaler) string {
	data, err := json.Marshal(a)
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write(c.salt)
	h.Write([]byte{0})
	h.Write(data)
	k := hex.EncodeToString(h.Sum(nil))
	return filepath.Join(c.dir, k[:2], k+".json")
}

// price is a's workload from the cache, or priced and stored.
func (c *billCache) price(a *analyze.Autoscaler, cfg *config.Config, opts Options) contract.Workload {
	p := c.path(a)
	if w, ok := decoded.Load(p); ok && p != "" {
		return w.(contract.Workload)
	}
	if p != "" && !safefile.OwnDir(c.dir, filepath.Dir(p)) {
		p = "" // a key directory that is a symlink may lead anywhere: price, do not store
	}
	if p != "" {
		// A regular file within a bound: the cache may come from another
		// run, with a FIFO or a link to /dev/zero in an entry's place.
		if data, err := safefile.ReadFile(p, maxBillEntryBytes, false); err == nil {
			var w contract.Workload
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if dec.Decode(&w) == nil && w.ID == a.ID {
				decoded.Store(p, w)
				return w
			}
		}
	}
	w := price(a, cfg, opts)
	if p != "" {
		c.store(p, w)
	}
	return w
}

// store writes an entry whole or not at all; a cache that cannot be
// written only costs the next run the pricing.
func (c *billCache) store(p string, w contract.Workload) {
	if data, err := json.Marshal(w); err == nil {
		_ = atomicfile.Write(p, data)
	}
}
