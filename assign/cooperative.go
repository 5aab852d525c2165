package assign

// cooperativeStickyAssign is Kafka's CooperativeStickyAssignor: the sticky
// assignment, less the partitions that change owner. Those are revoked by
// their owners in this rebalance and assigned in the next one, which the
// owners trigger by rejoining at once (see Converge).
//
// A partition changes owner when the sticky assignment gives it to a
// member other than the one that owned it (Kafka's partitions
// "transferring ownership": revoked by one member, added to another).
func cooperativeStickyAssign(s *Spec) *Placement {
	owner := stickyOwners(s)
	for gp, was := range s.previousOwners() {
		if was >= 0 && owner[gp] != was {
			owner[gp] = -1
		}
	}
	return placementFromOwners(s, owner)
}
