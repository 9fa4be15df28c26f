// Streams are `<category>-<id>`; a category is one word because EventStoreDB's by-category
// projection splits at the first hyphen (STYLE.md 2.4).
export const streams = {
  marketplace: (id: number) => `marketplace-${id}`,
  marketplaceName: (name: string) => `marketplacename-${name}`,
  access: (marketplaceId: number | null) => `access-${marketplaceId ?? 'estate'}`,
} as const;
