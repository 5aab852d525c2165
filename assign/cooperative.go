package assign

// cooperativeStickyAssign is Kafka's CooperativeStickyAssignor: the sticky
// assignment, less the partitions that change owner. Those are revoked by
// their owners in this rebalance and assigned in the next one, which the
// owners trigger by rejoining at once (see Converge).
func cooperativeStickyAssign(l *layout) [][]int32 {
	var transfers map[int32]int
	per := stickyAssign(l, &transfers)
	if transfers == nil {
		transfers = transferring(l, per)
	}
	if len(transfers) == 0 {
		return per
	}
	for m, ps := range per {
		kept := ps[:0:0]
		for _, gp := range ps {
			if to, ok := transfers[gp]; ok && to == m {
				continue
			}
			kept = append(kept, gp)
		}
		per[m] = kept
	}
	return per
}

// transferring returns the partitions that the assignment gives to a
// member that did not own them while another member owned them:
// Kafka's computePartitionsTransferringOwnership, used after the general
// builder.
func transferring(l *layout, per [][]int32) map[int32]int {
	owned := make(map[int32]int)
	for m, ps := range l.owned {
		for _, gp := range ps {
			owned[gp] = m
		}
	}
	out := make(map[int32]int)
	for m, ps := range per {
		for _, gp := range ps {
			if prev, ok := owned[gp]; ok && prev != m {
				out[gp] = m
			}
		}
	}
	return out
}
