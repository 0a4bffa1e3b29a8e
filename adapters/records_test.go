package adapters

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dbbench/dbbench/dataset"
	"github.com/dbbench/dbbench/workloads/ycsb"
)

// Stand-ins with one record method each, combined below into targets of every kind.
type (
	bare    struct{}
	loader  struct{}
	reader  struct{}
	updater struct{}
	inserts struct{}
	scanner struct{}
)

func (bare) Load(context.Context, *dataset.Persons) error               { return nil }
func (bare) Info() map[string]any                                       { return nil }
func (bare) Close() error                                               { return nil }
func (loader) LoadRecords(context.Context, dataset.YCSB, int64) error   { return nil }
func (updater) UpdateRecord(context.Context, []byte, int, []byte) error { return nil }
func (inserts) InsertRecord(context.Context, []byte, [][]byte) error    { return nil }
func (scanner) ScanRecords(context.Context, []byte, int) (Tally, error) { return Tally{}, nil }
func (reader) ReadRecord(context.Context, []byte, [][]byte) ([][]byte, bool, error) {
	return nil, false, nil
}

// TestRecordOps: the operations a target serves follow from the interfaces it implements, with a
// read-modify-write needing both a reader and an updater, and nothing without a loader; the
// refusal names each missing operation with the interface it lacks.
func TestRecordOps(t *testing.T) {
	all := ycsb.Ops()
	tests := []struct {
		name    string
		target  Target
		ops     []ycsb.Op
		needed  []ycsb.Op
		missing string
	}{
		{"no records", bare{}, nil, all,
			"cannot serve read (no adapters.RecordLoader), update (no adapters.RecordLoader), insert (no adapters.RecordLoader), scan (no adapters.RecordLoader), readmodifywrite (no adapters.RecordLoader)"},
		{"methods but no loader", struct {
			bare
			reader
			updater
			inserts
			scanner
		}{}, nil, []ycsb.Op{ycsb.Read}, "cannot serve read (no adapters.RecordLoader)"},
		{"everything", struct {
			bare
			loader
			reader
			updater
			inserts
			scanner
		}{}, all, all, ""},
		{"reads only", struct {
			bare
			loader
			reader
		}{}, []ycsb.Op{ycsb.Read}, []ycsb.Op{ycsb.ReadModifyWrite, ycsb.Read},
			"cannot serve readmodifywrite (no adapters.RecordUpdater)"},
		{"updates without reads", struct {
			bare
			loader
			updater
			scanner
		}{}, []ycsb.Op{ycsb.Update, ycsb.Scan}, []ycsb.Op{ycsb.ReadModifyWrite, ycsb.Scan, ycsb.Insert},
			"cannot serve insert (no adapters.RecordInserter), readmodifywrite (no adapters.RecordReader)"},
		{"scan and insert: workload E", struct {
			bare
			loader
			inserts
			scanner
		}{}, []ycsb.Op{ycsb.Insert, ycsb.Scan}, []ycsb.Op{ycsb.Scan, ycsb.Insert}, ""},
		{"nothing needed", bare{}, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RecordOps(tt.target); !slices.Equal(got, tt.ops) {
				t.Errorf("RecordOps = %v, want %v", got, tt.ops)
			}
			err := MissingRecordOps(tt.target, tt.needed)
			switch {
			case tt.missing == "" && err != nil:
				t.Errorf("MissingRecordOps(%v) = %v, want nil", tt.needed, err)
			case tt.missing != "" && (err == nil || err.Error() != tt.missing):
				t.Errorf("MissingRecordOps(%v) = %v, want %q", tt.needed, err, tt.missing)
			}
		})
	}
}

// TestInfoMissingRecordOps: before any target is opened, the adapter's declaration decides, and
// the refusal names every operation it lacks, in ycsb.Ops order.
func TestInfoMissingRecordOps(t *testing.T) {
	tests := []struct {
		records, needed []ycsb.Op
		want            string
	}{
		{ycsb.Ops(), ycsb.Ops(), ""},
		{nil, nil, ""},
		{nil, []ycsb.Op{ycsb.Scan, ycsb.Insert}, "cannot serve insert, scan (its targets do not implement those record capabilities, adapters/records.go)"},
		{[]ycsb.Op{ycsb.Read, ycsb.Update}, []ycsb.Op{ycsb.Read, ycsb.ReadModifyWrite}, "cannot serve readmodifywrite ("},
	}
	for _, tt := range tests {
		err := Info{Name: "x", Records: tt.records}.MissingRecordOps(tt.needed)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("declared %v, needed %v: %v, want nil", tt.records, tt.needed, err)
		case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
			t.Errorf("declared %v, needed %v: %v, want %q", tt.records, tt.needed, err, tt.want)
		}
	}
}

func TestCheckRecordFields(t *testing.T) {
	key := []byte("user1")
	tests := []struct {
		name string
		err  error
		want string // "" no error
	}{
		{"update of the first field", CheckUpdateField("lmdb", key, 0, 10), ""},
		{"update of the last field", CheckUpdateField("lmdb", key, 9, 10), ""},
		{"update past the last", CheckUpdateField("lmdb", key, 10, 10), `lmdb: update of field 10 of "user1": records have 10 fields`},
		{"update of a negative field", CheckUpdateField("sql", key, -1, 10), `sql: update of field -1 of "user1": records have 10 fields`},
		{"insert of every field", CheckInsertFields("memory", key, 10, 10), ""},
		{"insert of one too few", CheckInsertFields("memory", key, 9, 10), `memory: insert of "user1" with 9 fields: records have 10`},
		{"insert of one too many", CheckInsertFields("lmdb", key, 11, 10), `lmdb: insert of "user1" with 11 fields: records have 10`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			switch {
			case tc.want == "" && tc.err != nil:
				t.Errorf("unexpected error: %v", tc.err)
			case tc.want != "" && (tc.err == nil || tc.err.Error() != tc.want):
				t.Errorf("error %v, want %q", tc.err, tc.want)
			}
		})
	}
}
