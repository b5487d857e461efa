// Package textfmt formats the numbers the report formats and the
// pull-request diff print, so that one figure reads the same in both.
package textfmt

import (
	"math"
	"strconv"
	"strings"
)

// Number formats a model figure with three significant digits below 100 and
// whole units above, which is the precision the model carries.
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
