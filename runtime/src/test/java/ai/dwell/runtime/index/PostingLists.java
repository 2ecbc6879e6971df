package ai.dwell.runtime.index;

/** Posting lists for tests outside the index package. */
public final class PostingLists {

    private PostingLists() {}

    public static PostingList of(int... lids) {
        PostingList list = new PostingList();
        for (int lid : lids) list.add(lid);
        return list;
    }

}
