package render

import (
	"context"
	"testing"

	"github.com/capreport/capreport/render/internal/helmkeys"
)

// BenchmarkHelmKeysCorpus renders every Helm and Kustomize render of the
// corpus (BenchmarkRenderCorpus's renders) with the key rewrite
// (ed25519 keys) and with Helm's own RSA keys (helmkeys.HelmsOwn), the choice issue
// 32 asks to be measured: RSA key generation is random in time, so run it
// with -count 10 or more and compare medians.
func BenchmarkHelmKeysCorpus(b *testing.B) {
	jobs := corpusJobs(b)
	for _, v := range []struct {
		name     string
		helmKeys bool
	}{{"ed25519", false}, {"rsa", true}} {
		b.Run(v.name, func(b *testing.B) {
			helmkeys.HelmsOwn = v.helmKeys
			defer func() { helmkeys.HelmsOwn = false }()
			b.ReportAllocs()
			for b.Loop() {
				for _, j := range jobs {
					if _, err := Render(context.Background(), j.Root, j.Opts); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(jobs)), "renders/op")
		})
	}
}
