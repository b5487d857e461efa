package laws

import (
	"os"
	"path/filepath"
	"testing"
)

// Every law names its checks, and every check is where it says.
func TestEvidenceIsWhereItSays(t *testing.T) {
	for _, law := range []Law{RoundsLaw, DeadBandLaw, StandingDelayLaw, FirstMessageLaw, KEDAConversionLaw} {
		checks := Evidence(law)
		if len(checks) == 0 {
			t.Errorf("%s: no check stands behind it", law)
		}
		for _, c := range checks {
			if c.What == "" {
				t.Errorf("%s: %s says nothing of what it compares", law, c.Name)
			}
			if _, err := os.Stat(filepath.Join("..", "..", c.Where)); err != nil {
				t.Errorf("%s: %s is not at %s: %v", law, c.Name, c.Where, err)
			}
		}
	}
}
