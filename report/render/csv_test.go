package render

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/report"
)

func TestCSVGolden(t *testing.T) {
	for _, name := range []string{"runs", "load"} {
		var b bytes.Buffer
		if err := CSV(&b, readReport(t, name+".json")); err != nil {
			t.Fatal(err)
		}
		golden(t, name+".csv.golden", b.Bytes())
	}
}

// TestCSVReadsBack reads the export with encoding/csv, as a spreadsheet would: the columns, a row
// per figure of every result that did not fail, each value the one the text report shows (the
// median over runs; P99.9 and MAX from the merged histogram), the runs it rests on, and an
// interval only where an absolute assertion decided one over the runs.
func TestCSVReadsBack(t *testing.T) {
	r := readReport(t, "runs.json")
	r.Results[1].Status, r.Results[1].Error = report.StatusFailed, "verification failed"
	var b bytes.Buffer
	if err := CSV(&b, r); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0], ","); got != "target,workload,size,figure,unit,value,runs,lo,hi" {
		t.Fatalf("header %q", got)
	}
	want := 0
	for i, x := range r.Results {
		if i != 1 {
			want += len(x.Figures)
		}
	}
	if len(rows)-1 != want {
		t.Errorf("%d rows, want %d (every figure of the results that did not fail)", len(rows)-1, want)
	}
	intervals := 0
	for _, row := range rows[1:] {
		x := r.Find(row[0], row[1], 0)
		if x == nil || x.Status != report.StatusOK {
			t.Fatalf("row %v: no such result, or a failed one", row)
		}
		want := x.Figures[row[3]]
		if m, ok := x.MergedTail(row[3]); ok && (row[3] == "p999" || row[3] == "max") {
			want = m
		}
		if v, err := strconv.ParseFloat(row[5], 64); err != nil || v != want {
			t.Errorf("row %v: value %q, want %v", row, row[5], want)
		}
		if info, _ := report.LookupFigure(row[3]); row[4] != info.Unit || row[6] != "3" || row[2] != "2000" {
			t.Errorf("row %v: want unit %q, 3 runs, size 2000", row, info.Unit)
		}
		if row[7] != "" || row[8] != "" {
			intervals++
			iv := r.Assertions[0].Interval
			if row[0]+" "+row[1]+" "+row[3] != "a scan ns_per_row" || row[7] != csvNumber(iv.Lo) || row[8] != csvNumber(iv.Hi) {
				t.Errorf("row %v has an interval; only scan.ns_per_row[a] has one: [%v, %v]", row, iv.Lo, iv.Hi)
			}
		}
	}
	if intervals != 1 {
		t.Errorf("%d rows with an interval, want 1 (the absolute assertion's)", intervals)
	}
}

// TestCSVQuotes: a field holding a comma, a quote or a line break is quoted as RFC 4180 says, and
// reads back whole.
func TestCSVQuotes(t *testing.T) {
	r := readReport(t, "runs.json")
	r.Results = r.Results[:1]
	r.Assertions = nil
	r.Results[0].Target = "a,\"b\"\nc"
	var b bytes.Buffer
	if err := CSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"a,""b""`+"\nc\",scan,") {
		t.Errorf("not quoted as RFC 4180 says:\n%s", b.String())
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || rows[1][0] != r.Results[0].Target || len(rows[1]) != 9 {
		t.Errorf("read back %q, %v", rows, err)
	}
	if csvNumber(math.NaN()) != "" || csvNumber(1.44e6) != "1440000" || csvNumber(72.5) != "72.5" {
		t.Error("numbers are not plain decimals")
	}
}
