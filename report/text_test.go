package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		golden string
		color  bool
	}{
		{"specimen.golden.txt", false},
		{"specimen-color.golden.txt", true},
	} {
		got, err := Text(specimenReport(), Options{Color: tc.color})
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, tc.golden, got)
		if hasESC := bytes.Contains(got, []byte("\x1b[")); hasESC != tc.color {
			t.Errorf("%s: ANSI escapes present = %v, want %v", tc.golden, hasESC, tc.color)
		}
	}
}

// The ledger reads worst first: fail before warn before pass before
// unpriced, and among failures the one with more errors first.
func TestTextWorstFirst(t *testing.T) {
	got, err := Text(specimenReport(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	order := []string{
		"payments/ScaledObject/ledger-consumer",    // fail, 3 errors
		"shop/HorizontalPodAutoscaler/checkout",    // fail, 1 error
		"web/HorizontalPodAutoscaler/frontend",     // warn
		"payments/ScaledObject/invoice-worker",     // pass
		"search/HorizontalPodAutoscaler/query-api", // unpriced
	}
	ledger := string(got[:bytes.Index(got, []byte("\nFindings\n"))])
	last := -1
	for _, id := range order {
		i := strings.Index(ledger, id)
		if i < 0 || i < last {
			t.Fatalf("ledger order wrong at %s:\n%s", id, ledger)
		}
		last = i
	}
}

// Colour must not break the columns: stripping the escapes from the coloured
// output gives the plain output exactly.
func TestTextColorKeepsAlignment(t *testing.T) {
	plain, _ := Text(specimenReport(), Options{})
	colored, _ := Text(specimenReport(), Options{Color: true})
	stripped := colored
	for _, code := range []string{ansiRed, ansiGreen, ansiYellow, ansiGrey, ansiBold, ansiReset} {
		stripped = bytes.ReplaceAll(stripped, []byte(code), nil)
	}
	if !bytes.Equal(stripped, plain) {
		t.Errorf("coloured output differs from plain once escapes are stripped:\n%s", stripped)
	}
}

// A name carrying an ANSI sequence or a line break must neither reach the
// terminal raw nor split a ledger row.
func TestTextEscapesManifestText(t *testing.T) {
	r := specimenReport()
	r.Workloads = []contract.Workload{specimenQuery()}
	r.Workloads[0].ID = "evil/HorizontalPodAutoscaler/\x1b[2Jwipe\nnext-line"
	got, err := Text(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(got, []byte("\x1b")) {
		t.Errorf("raw ESC reached the terminal output:\n%q", got)
	}
	if !bytes.Contains(got, []byte(`\u001b[2Jwipe next-line`)) {
		t.Errorf("escaped name not found:\n%s", got)
	}
}

func TestTextEmptyReport(t *testing.T) {
	got, err := Text(contract.Report{SchemaVersion: contract.SchemaVersion, Root: "."}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte("No autoscalers found.")) {
		t.Errorf("empty report:\n%s", got)
	}
}
