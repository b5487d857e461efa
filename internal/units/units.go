// Package units is the one place capreport formats durations, counts and
// figures for people: the terminal ledger, the Markdown comments, the HTML
// page, the plots and the findings' messages all print "20 min 32 s" for the
// same 1232 seconds. It sits below rules (it imports nothing of capreport)
// so that the messages rules composes read like the tables report draws.
//
// Machine-readable fields (JSON numbers, SARIF) never go through it, and
// neither do assumption values, which keep the syntax of the annotation
// that sets them ("90s", "5m").
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Duration formats seconds the way people say them: seconds below two
// minutes ("89.6 s": rounding to "1 min 30 s" would hide the figure the
// model computed), minutes and seconds below two hours ("20 min 32 s"),
// hours and minutes above ("2 h 5 min"). A value that never comes (±Inf,
// NaN) prints as "∞".
func Duration(seconds float64) string {
	if math.IsInf(seconds, 0) || math.IsNaN(seconds) {
		return "∞"
	}
	sign, a := "", math.Abs(seconds)
	if seconds < 0 {
		sign = "−"
	}
	switch {
	case a < 120:
		return sign + Number(a) + " s"
	case a < 7200:
		total := int64(math.Round(a))
		if total%60 == 0 {
			return fmt.Sprintf("%s%d min", sign, total/60)
		}
		return fmt.Sprintf("%s%d min %d s", sign, total/60, total%60)
	}
	total := int64(math.Round(a / 60))
	if total%60 == 0 {
		return fmt.Sprintf("%s%d h", sign, total/60)
	}
	return fmt.Sprintf("%s%d h %d min", sign, total/60, total%60)
}

// Seconds formats whole seconds, as the simulation clock counts them.
func Seconds(s int) string { return Duration(float64(s)) }

// SecondsOr formats optional seconds; nil (the event never happens within
// the simulated horizon) prints as never.
func SecondsOr(p *int, never string) string {
	if p == nil {
		return never
	}
	return Seconds(*p)
}

// Number formats a model figure with three significant digits below 100 and
// whole units above, which is the precision the model carries; from 10,000
// up the digits are grouped by three.
func Number(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return strconv.FormatFloat(x, 'f', -1, 64)
	case math.Abs(x) >= 10000:
		return Thousands(strconv.FormatFloat(math.Round(x), 'f', 0, 64))
	case math.Abs(x) >= 100:
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// Thousands groups the digits of a whole number by three (918000 →
// 918,000) so large backlogs read at a glance.
func Thousands(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// Count formats a whole count with its noun in the right number: "1
// round", "15 rounds", "0 pods".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Plural picks the singular or plural form for n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Multiple formats a design overload or a step: 10 → "10x", 2.5 → "2.5x".
func Multiple(k float64) string { return Number(k) + "x" }

// Percent formats a fraction as a whole percentage: 0.456 → "46 %".
func Percent(f float64) string {
	return strconv.FormatFloat(math.Round(f*100), 'f', 0, 64) + " %"
}

// Measurement says in a few words how `capreport calibrate` measured a
// value, for every place that shows a value's origin: "measured p90 over
// 7d, 312 pods, 2026-12-01". quantile 0 is no quantile, 1 the peak; unit
// names what a sample is ("samples" when empty).
func Measurement(quantile float64, window string, samples int, unit string, at time.Time) string {
	if unit == "" {
		unit = "samples"
	}
	stat := "measured"
	switch {
	case quantile >= 1:
		stat += " peak"
	case quantile > 0:
		stat += " p" + strconv.FormatFloat(quantile*100, 'f', -1, 64)
	}
	return fmt.Sprintf("%s over %s, %d %s, %s", stat, window, samples, unit, at.UTC().Format("2006-01-02"))
}

// SampleUnit is what one sample of a measured assumption is: a pod for
// the dead time, spelt as the annotation ("dead-time") or as in the
// configuration and the report ("deadTime"), else a sample.
func SampleUnit(key string) string {
	if key == "dead-time" || key == "deadTime" {
		return "pods"
	}
	return "samples"
}
