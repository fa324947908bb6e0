// Cursor pages (`{ data, nextCursor }`). A list call answers a PagePromise: `await` it for the first
// page, or `for await` over it to walk every item of every page, fetching the next page on demand.

export interface CursorPage<Item> {
  data: Item[];
  nextCursor: string | null;
}

export class PagePromise<Item, Page extends CursorPage<Item>>
  implements PromiseLike<Page>, AsyncIterable<Item>
{
  private first: Promise<Page> | undefined;

  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page>) {}

  private firstPage(): Promise<Page> {
    this.first ??= this.fetchPage(undefined);
    return this.first;
  }

  then<A = Page, B = never>(
    onFulfilled?: ((page: Page) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  /** Every page, the first one included. */
  async *pages(): AsyncGenerator<Page> {
    let page = await this.firstPage();
    yield page;
    while (page.nextCursor) {
      page = await this.fetchPage(page.nextCursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects up to `limit` items across pages. */
  async toArray(limit = Infinity): Promise<Item[]> {
    const items: Item[] = [];
    for await (const item of this) {
      if (items.length >= limit) break;
      items.push(item);
    }
    return items;
  }
}
