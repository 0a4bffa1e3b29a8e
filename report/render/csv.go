package render

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/dbbench/dbbench/report"
)

// CSVHead are the columns of `dbbench report --format csv`.
var CSVHead = []string{"target", "workload", "size", "figure", "unit", "value", "runs", "lo", "hi"}

// CSV writes every figure of every measured result that did not fail (report.FigureRows), one row
// each, as RFC 4180 CSV under CSVHead: value as the text report shows it (the median over runs,
// the merged histogram's P99.9 and MAX), runs how many runs it rests on, lo and hi the interval the
// report holds for it (an absolute assertion's over several runs), empty when it holds none.
// Numbers are plain decimals in the figure's unit (ns, 1/s, count, ...: dbbench list figures).
func CSV(w io.Writer, r *report.Report) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHead); err != nil {
		return err
	}
	for _, x := range r.FigureRows() {
		row := []string{x.Target, x.Workload, strconv.Itoa(x.Size), x.Figure, x.Unit, csvNumber(x.Value), strconv.Itoa(x.Runs), csvNumber(x.Lo), csvNumber(x.Hi)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvNumber is a value as a plain decimal with the digits that tell it apart ("1440000", "72.5"),
// "" for NaN (none).
func csvNumber(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
