// A marketplace name: ^[a-z0-9][a-z0-9_-]{0,62}$ (registration, facade path, holdings check)
export const marketplaceNamePattern = '^[a-z0-9][a-z0-9_-]{0,62}$';
const marketplaceName = new RegExp(marketplaceNamePattern);

// Sink and other names: ^[a-z0-9][a-z0-9_-]*$
export const resourceNamePattern = '^[a-z0-9][a-z0-9_-]*$';
const resourceName = new RegExp(resourceNamePattern);

export const isMarketplaceName = (name: string): boolean => marketplaceName.test(name);
export const isResourceName = (name: string): boolean => resourceName.test(name);
