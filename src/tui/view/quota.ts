// The header's and the limiter pane's usage windows: the text module's phrase, for components (which import only the view model).

export { quotaNear, quotaText, windowText, type QuotaView } from '../../text/quota.js';
