// The header's usage windows: the text module's phrase, for components (which import only the view model).

export { quotaNear, quotaText, type QuotaView } from '../../text/quota.js';
