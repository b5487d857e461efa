package render

import (
	"net/http"
	"testing"
	"time"

	"github.com/capreport/capreport/check"
)

// fetchCheckCases are the trigger and quiet inputs of the fetch checks;
// the servers live until the calling test ends.
func fetchCheckCases(t *testing.T) []renderCheckCase {
	good := newHelmRepo(t, libChart("1.0.0"))
	empty := newHelmRepo(t)
	bad := newHelmRepo(t)
	bad.badDigest = true
	bad.add(t, libChart("1.0.0"))
	redirect := hostileRepo(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	on := func(max int64) func(o *Options) {
		return func(o *Options) {
			o.Fetch = FetchOptions{Enabled: true, CacheDir: t.TempDir(), RequestTimeout: 2 * time.Second, MaxArchiveBytes: max}
		}
	}
	quiet := checkInput{files: appChart(good.URL, "1.0.0", ""), opts: on(0)}
	return []renderCheckCase{
		{name: "fetch-failed", check: check.FetchFailed, severity: "warning",
			trigger: checkInput{files: appChart(empty.URL, "1.0.0", ""), opts: on(0)}, quiet: quiet,
			source: "app", file: "app/Chart.yaml", text: "not in the repository's index"},
		{name: "fetch-limit", check: check.FetchLimit, severity: "error",
			trigger: checkInput{files: appChart(good.URL, "1.0.0", ""), opts: on(64)}, quiet: quiet,
			source: "app", file: "app/Chart.yaml", text: "limit"},
		{name: "fetch-unsafe", check: check.FetchUnsafe, severity: "error",
			trigger: checkInput{files: appChart(redirect.URL, "1.0.0", ""), opts: on(0)}, quiet: quiet,
			source: "app", file: "app/Chart.yaml", text: "another scheme"},
		{name: "fetch-digest", check: check.FetchDigest, severity: "error",
			trigger: checkInput{files: appChart(bad.URL, "1.0.0", ""), opts: on(0)}, quiet: quiet,
			source: "app", file: "app/Chart.yaml", text: "but the index names"},
	}
}
