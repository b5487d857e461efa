package render

import (
	"context"
	"testing"
)

// BenchmarkHelmKeysCorpus renders every Helm and Kustomize render of the
// corpus (BenchmarkRenderCorpus's renders) with the key rewrite
// (ed25519 keys) and with Helm's own RSA keys (helmKeys), the choice issue
// 32 asks to be measured: RSA key generation is random in time, so run it
// with -count 10 or more and compare medians.
func BenchmarkHelmKeysCorpus(b *testing.B) {
	jobs := corpusJobs(b)
	for _, v := range []struct {
		name     string
		helmKeys bool
	}{{"ed25519", false}, {"rsa", true}} {
		b.Run(v.name, func(b *testing.B) {
			helmKeys = v.helmKeys
			defer func() { helmKeys = false }()
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
