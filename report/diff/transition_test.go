package diff

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/capreport/capreport/contract"
)

// TestHeadlineByTransition is the large pull request of issue 30: 120
// autoscalers changed, 100 of them went from fail to pass and 20 only
// moved a replica bound the same way. The headline names the 100 fixed;
// their rows come first; the 20 identical changes share one row.
func TestHeadlineByTransition(t *testing.T) {
	var base, head []contract.Workload
	for i := range 100 {
		b, h := sizeAt80(), sizeWorkload()
		b.ID = fmt.Sprintf("team-%03d/HorizontalPodAutoscaler/web", i)
		h.ID = b.ID
		h.MaxReplicas = int32(200 + i) // each fixed row its own
		base, head = append(base, b), append(head, h)
	}
	for i := range 20 {
		b := timeWorkload()
		b.ID = fmt.Sprintf("jobs-%02d/ScaledObject/orders", i)
		h := b
		h.MaxReplicas = 200
		base, head = append(base, b), append(head, h)
	}
	res := Compare(reportOf(base...), reportOf(head...))
	out, err := Markdown(res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if want := "**120 autoscalers changed: 0 newly failing, 100 fixed, 20 with changed figures**"; !strings.Contains(s, want) {
		t.Fatalf("headline is not %q:\n%.600s", want, s)
	}
	text, _ := Text(res)
	if !strings.HasPrefix(string(text), "120 autoscalers changed: 0 newly failing, 100 fixed, 20 with changed figures\n") {
		t.Errorf("text headline:\n%.300s", text)
	}
	ledger := s[strings.Index(s, "| | Autoscaler |"):]
	ledger = ledger[:strings.Index(ledger, "\n\n")]
	rows := strings.Split(ledger, "\n")[2:]
	if len(rows) != 101 {
		t.Fatalf("%d ledger rows, want 100 fixed and one shared:\n%s", len(rows), ledger)
	}
	for _, r := range rows[:100] {
		if !strings.HasPrefix(r, "| ✅ | team-") || !strings.Contains(r, "| fail → pass |") {
			t.Fatalf("a fixed row is not among the first 100: %s", r)
		}
	}
	want := "| ✅ | jobs-00/ScaledObject/orders, jobs-01/ScaledObject/orders, jobs-02/ScaledObject/orders and 17 more (20 autoscalers) | pass |"
	if !strings.HasPrefix(rows[100], want) {
		t.Errorf("the identical changes do not share a row:\n got %s\nwant %s…", rows[100], want)
	}
	if n := strings.Count(s, "<details>"); n == 0 || n != strings.Count(s, "</details>") {
		t.Errorf("%d details blocks, some cut in half", n)
	}
}

// TestBillsWorse: the bills that grew past the threshold, with the figure
// that grew the most; verdict-only or shrinking changes are not bills
// getting worse, and "never" after a number is unbounded growth.
func TestBillsWorse(t *testing.T) {
	// web at 80 % CPU: 30x takes 15 rounds instead of 4 (+275 %).
	res := Compare(reportOf(sizeWorkload(), timeWorkload()), reportOf(sizeAt80(), timeWorkload()))
	ws := BillsWorse(res, 100)
	if len(ws) != 1 || ws[0].ID != webID {
		t.Fatalf("worse bills %+v, want web's", ws)
	}
	if ws[0].Percent <= 100 {
		t.Errorf("largest growth %.0f %%, want over 100", ws[0].Percent)
	}
	if got := BillsWorse(res, ws[0].Percent); len(got) != 0 {
		t.Errorf("a threshold at the growth itself is not passed: %+v", got)
	}
	// The reverse change takes fewer rounds but peaks higher: 160 pods
	// instead of 110 at 10x (+45 %), a cost past 40 % and not past 50 %.
	res = Compare(reportOf(sizeAt80()), reportOf(sizeWorkload()))
	if got := BillsWorse(res, 50); len(got) != 0 {
		t.Errorf("fewer rounds counted as worse: %+v", got)
	}
	if got := BillsWorse(res, 40); len(got) != 1 || got[0].Figure.Key != "size.overload[10].peakReplicas" {
		t.Errorf("the higher peak is not worse past 40 %%: %+v", got)
	}
	// Hunting: the band's top and the required standing delay grow.
	res = Compare(reportOf(timeWorkload()), reportOf(timeShortWindow()))
	if got := BillsWorse(res, 10); len(got) != 1 || !isCost(got[0].Figure.Key) || !strings.HasPrefix(got[0].Figure.Key, "time.") {
		t.Errorf("the hunting Time bill is not worse: %+v", got)
	}
	for _, c := range []struct {
		before, after any
		want          float64
		ok            bool
	}{
		{4.0, 15.0, 275, true},
		{15.0, 4.0, 0, false},
		{0.0, 3.0, math.Inf(1), true},
		{4.0, "never", math.Inf(1), true},
		{"never", 4.0, 0, false},
		{4.0, 4.0, 0, false},
	} {
		got, ok := growth(c.before, c.after)
		if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9 && !(math.IsInf(got, 1) && math.IsInf(c.want, 1))) {
			t.Errorf("growth(%v, %v) = %v %v, want %v %v", c.before, c.after, got, ok, c.want, c.ok)
		}
	}
	out, _ := Markdown(Compare(reportOf(sizeWorkload()), reportOf(sizeAt80())), Options{WorsePercent: 50})
	if !strings.Contains(string(out), "📈 1 bill grew more than 50 %: shop/HorizontalPodAutoscaler/web (") {
		t.Errorf("the lead does not name the bill past the threshold:\n%.800s", out)
	}
}
