package calibrate

import (
	"testing"
	"unicode/utf8"
)

// FuzzApplyNames: whatever a workload's namespace, kind and name, Apply
// writes an entry that loads, names exactly that workload and holds only
// the measured value, and a second Apply changes nothing. Names that are
// not UTF-8 (which no manifest or API server gives) are refused with an
// error; an empty name is not written.
func FuzzApplyNames(f *testing.F) {
	for _, s := range names {
		f.Add("shop", "Deployment", s)
		f.Add(s, "Deployment", "api")
		f.Add("shop", s, "api")
	}
	f.Fuzz(func(t *testing.T, ns, kind, name string) {
		r := nameResult(ns, name)
		r.Workload.Kind = kind
		const existing = "workloads:\n  - {namespace: shop, name: web, podRate: 10}\n"
		out, changed, err := Apply("c.yaml", []byte(existing), []Result{r})
		valid := utf8.ValidString(ns) && utf8.ValidString(kind) && utf8.ValidString(name)
		switch {
		case !valid:
			if err == nil && changed {
				t.Fatalf("text that is not UTF-8 was written:\n%s", out)
			}
			return
		case name == "":
			if err != nil || changed {
				t.Fatalf("an empty name: changed %v, err %v", changed, err)
			}
			return
		case err != nil || !changed:
			t.Fatalf("changed %v, err %v", changed, err)
		}
		checkApplied(t, out, 1, r)
		if again, changed, err := Apply("c.yaml", out, []Result{r}); err != nil || changed || string(again) != string(out) {
			t.Fatalf("a second run changed the file (err %v):\n%s\n---\n%s", err, out, again)
		}
	})
}
